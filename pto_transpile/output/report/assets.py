"""The report's style sheet and script, inlined into the page (it loads nothing)."""

CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #222; max-width: 1180px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ddd; }
h3 { font-size: 15px; margin: 20px 0 6px; }
.lead { color: #555; margin-top: 0; }
table.numbers { border-collapse: collapse; margin: 8px 0; }
table.numbers td, table.numbers th { border: 1px solid #ddd; padding: 3px 10px; text-align: left; }
table.numbers td.num { text-align: right; font-variant-numeric: tabular-nums; }
.ok { color: #17803d; font-weight: 600; } .bad { color: #c62828; font-weight: 600; }
.bound { background: #f6f8fa; border-left: 4px solid #669bbc; padding: 8px 12px; margin: 8px 0; }
.bound .headline { font-weight: 600; font-size: 15px; }
.bound ul { margin: 4px 0 0 0; padding-left: 20px; }
.legend { font-size: 12px; color: #555; margin: 6px 0; }
.legend span.sw { display: inline-block; width: 12px; height: 12px; vertical-align: -2px; margin: 0 4px 0 10px; }
.views button { font: inherit; padding: 2px 10px; margin-right: 4px; cursor: pointer; }
.views button.on { background: #334; color: #fff; }
.scroll { overflow-x: auto; }
svg.timeline { display: block; margin: 6px 0 14px; }
svg .cell { stroke: #fff; stroke-width: 0.5; cursor: pointer; }
svg .cell:hover, svg .cell.linked { stroke: #000; stroke-width: 1.5; }
svg .cell-label { font-size: 11px; text-anchor: middle; pointer-events: none; fill: #111; }
svg .row-label { font-size: 12px; font-family: ui-monospace, monospace; }
svg .row-line { stroke: #eee; }
svg .run-title { font-size: 13px; font-weight: 600; }
svg .phase-fill { fill: #fff3cd; } svg .phase-steady { fill: #e8f4ea; } svg .phase-drain { fill: #e3e7f6; }
svg .phase-label { font-size: 11px; fill: #666; }
svg .gap { fill: url(#gap-hatch); stroke: #c62828; stroke-width: 0.6; }
svg .cut { fill: url(#cut-hatch); } svg .cut-label { font-size: 11px; text-anchor: middle; fill: #555; }
svg .flow { stroke: #222; stroke-width: 1.3; opacity: 0; pointer-events: none; }
svg .flow.shown, .loop.all-arrows svg .flow { opacity: 0.85; }
svg .bar { fill: #669bbc; } svg .bar.chosen { fill: #17803d; } svg .bar-label { font-size: 12px; }
svg .axis { stroke: #999; } svg .boundmark { stroke: #c62828; stroke-width: 2; }
#tip { position: fixed; display: none; background: #222; color: #fff; padding: 6px 9px; border-radius: 4px;
       font-size: 12px; white-space: pre; pointer-events: none; z-index: 10; }
pre { background: #f6f8fa; padding: 10px; overflow-x: auto; font-size: 12px; }
pre .add { color: #17803d; } pre .del { color: #c62828; } pre .hunk { color: #6f42c1; }
.hidden { display: none; }
"""

JS = """
(function () {
  var tip = document.getElementById('tip');
  function linked(cell, on) {
    var flows = document.querySelectorAll('.flow');
    for (var i = 0; i < flows.length; i++) {
      var ends = (flows[i].getAttribute('data-cells') || '').split(' ');
      if (ends.indexOf(cell.id) >= 0) {
        flows[i].classList.toggle('shown', on);
        for (var j = 0; j < ends.length; j++) {
          var other = document.getElementById(ends[j]);
          if (other && other !== cell) { other.classList.toggle('linked', on); }
        }
      }
    }
  }
  document.addEventListener('mouseover', function (e) {
    var t = e.target;
    if (!t.getAttribute || !t.getAttribute('data-tip')) { return; }
    tip.textContent = t.getAttribute('data-tip');
    tip.style.display = 'block';
    if (t.classList.contains('cell')) { linked(t, true); }
  });
  document.addEventListener('mousemove', function (e) {
    tip.style.left = (e.clientX + 14) + 'px';
    tip.style.top = (e.clientY + 14) + 'px';
  });
  document.addEventListener('mouseout', function (e) {
    var t = e.target;
    if (!t.getAttribute || !t.getAttribute('data-tip')) { return; }
    tip.style.display = 'none';
    if (t.classList.contains('cell')) { linked(t, false); }
  });
  var buttons = document.querySelectorAll('.views button');
  for (var i = 0; i < buttons.length; i++) {
    buttons[i].addEventListener('click', function () {
      var box = this.closest('.loop');
      var view = this.getAttribute('data-view');
      var panes = box.querySelectorAll('.pane');
      for (var k = 0; k < panes.length; k++) {
        panes[k].classList.toggle('hidden', panes[k].getAttribute('data-view') !== view);
      }
      var mine = box.querySelectorAll('.views button');
      for (var k = 0; k < mine.length; k++) { mine[k].classList.toggle('on', mine[k] === this); }
    });
  }
  var boxes = document.querySelectorAll('input.all-arrows');
  for (var i = 0; i < boxes.length; i++) {
    boxes[i].addEventListener('change', function () {
      this.closest('.loop').classList.toggle('all-arrows', this.checked);
    });
  }
})();
"""
