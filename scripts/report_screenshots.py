"""Screenshots of `--report` pages for the docs: the demo's and the FlashAttention example's.

Run from the repository root: `python3 scripts/report_screenshots.py [--out DIR]` (default
`docs/`). Each example is transpiled at its own preload and simulated by pto-transpile
itself (`--simulate --report`), and its page is opened in headless Chromium (Debian's
`chromium`), which photographs the page from its top to the end of the first pipeline
loop's drawings.
"""

from __future__ import annotations

import argparse
import base64
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the repository root first: tests/ holds folders named like the packages (tests/pto_api,
# tests/sim_runtime) that would otherwise be imported as empty namespace packages
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from browser import Page, chromium, open_page  # noqa: E402

EXAMPLES = {"seed_demo": "report_seed_demo.png", "flash_attention_dn": "report_flash_attention_dn.png"}
#: the shapes of the tensors whose rows are `pl.DYNAMIC`, for `--simulate` (those of the kernel's own test)
SHAPES = {"flash_attention_dn": ["--shape", "q=256x128", "--shape", "k=512x128", "--shape", "v=512x128",
                                 "--shape", "o=256x128"]}


def report(kernel: Path, page: Path, generated: Path) -> None:
    """Write the --report page of `kernel` (exit status checked)."""
    subprocess.run([sys.executable, "-m", "pto_transpile", str(kernel), "--simulate", *SHAPES.get(kernel.stem, []),
                    "--report", str(page), "-o", str(generated)], cwd=ROOT, check=True, capture_output=True, text=True)


def screenshot(browser: Page, png: Path) -> None:
    """The page open in `browser`, from its top to the end of the first loop's drawings."""
    if browser.errors():
        raise SystemExit(f"the page logged errors: {browser.errors()}")
    bottom = browser.evaluate("document.querySelector('.loop').getBoundingClientRect().bottom + window.scrollY")
    width = browser.evaluate("document.documentElement.scrollWidth")
    data = browser.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                        clip={"x": 0, "y": 0, "width": width, "height": bottom + 8, "scale": 1})["data"]
    png.write_bytes(base64.b64decode(data))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="where the PNG files go (default docs/)")
    args = parser.parse_args(argv)
    executable = chromium()
    if executable is None:
        print("chromium is not installed (apt-get install -y chromium)", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for stem, name in EXAMPLES.items():
            page = Path(tmp) / f"{stem}.html"
            report(Path("examples") / f"{stem}.py", page, Path(tmp) / f"{stem}_generated.py")
            browser, profile = open_page(executable, page.resolve().as_uri())
            try:
                screenshot(browser, args.out / name)
            finally:
                browser.close()
                profile.cleanup()
            print(f"wrote {args.out / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
