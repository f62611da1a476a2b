from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
A value a delayed stage receives travels in a field of the ctx ring (`pl.struct_array`),
and whether it is an integer or a float cannot be told from how it is computed: an integer
division `a / b`, `pl.getval` of a tile whose dtype is not a constant, a name bound from
values of both kinds without a `pl` dtype. The uses of the stage parameter receiving it
(an index or loop bound is an integer; the scalar of a vector op takes its tile's dtype)
do not tell either. A function chosen per iteration (`_relu if ki == 0 else _neg`) is
neither: a field holds numbers only.

## Why it matters for pipelining
PyPTO types each field of a `pl.struct_array` from its initialiser: a float carried in a
field initialised with `0` is truncated to an integer, an index carried in a field
initialised with `0.0` becomes a float. The delayed stage would compute with another value
than the serial kernel does.

## Example
```python
    for ki in pl.range(0, N):
        scale = TILE / (ki + 1)          # true division of integers; `st` only prints it
        with pl.section_vector():
            st(ki, sub_id, scale, out, x_db)
```

## Use instead
```python
        scale: pl.DT_FP32 = TILE / (ki + 1)   # the annotation gives the value its type
```
"""


RULE = Rule(
    code=codes.CTX_FIELD_TYPE_UNKNOWN,
    name="ctx-field-type-unknown",
    title="Whether a value a delayed stage receives is an integer or a float cannot be told",
    message="`{value}` travels to {stage} in a ctx field, but {why}",
    hint="Annotate the name where it is bound (`{value}: pl.DT_FP32 = ...` or `pl.DT_INT32`), or compute it "
         "from values whose type is known",
    hints={"expression": "Bind `{value}` to a name annotated with its type before the call (`v: pl.DT_FP32 = "
                         "{value}` or `pl.DT_INT32`) and pass the name, or compute it from values whose type "
                         "is known",
           "display": "Hand the stage each item of `{value}` as an argument of its own, with a parameter for each: "
                      "a ctx field carries one number",
           "struct": "Pass the struct by the name it was made with (`{struct}`), or bind the second name once, "
                     "on a line of its own (`{value} = {struct}`), and bind neither again",
           "struct_pick": "Pass the stage one struct made by `pl.struct(...)` before the loop and set its fields in "
                          "the loop (`st = pl.struct(g=0.0)` before it, `st.g = ...` in it): the ring carries such a "
                          "struct field by field, not a choice among structs; a dtype annotation does not make a "
                          "struct a number",
           "struct_entry": "Declare a struct with the fields the stage reads before the loop (`{value} = "
                           "pl.struct(...)`), set them in the loop (`{value}.f = ...`) and pass that struct: the "
                           "ring carries a struct made by `pl.struct` field by field, not an entry of `{array}`",
           "made_tuple": "Declare a struct with the same fields before the loop (`{value} = pl.struct(...)`), set them "
                         "in the loop (`{value}.f = ...`) and pass that struct: the ring carries a struct made by "
                         "`pl.struct` field by field",
           "struct_in_struct": "Pass `{inner}` to the stages as an argument of its own, or give `{holder}` its "
                               "fields instead: the ring carries a struct made by `pl.struct` field by field, each "
                               "field a number",
           "struct_field": "Initialise the field where the struct is made with a number of the type it carries "
                           "(`{field}=0.0` for a float, `{field}=0` for an integer, or `pl.const(0, pl.DT_...)`): "
                           "PyPTO types a struct's field by its initialiser, and a bool or a value of either type "
                           "says neither",
           "pick_rebound": "Pick among handles the loop body does not rebind ({names} are rebound in it): a pick "
                           "by the iteration of names bound before the loop (`(even, odd)[i % 2]`) travels with its "
                           "task; write the handle each iteration uses as such a pick",
           "handle_chosen": "Write the choice in the call (`(even, odd)[i % 2]` for the tensors, `bufs[i % 2]` for a "
                            "slot): a pick by a value of the iteration travels with its task; or bind `{value}` once, "
                            "at the top of the loop body, to such a pick",
           "handle": "Pass `{handle}` to the stage as an argument of its own and keep only numbers in the struct "
                     "(a handle is the same in every iteration: it needs no ctx field)",
           "function": "A ctx field holds a number, not a function: hand the stage what chooses the function (the "
                       "loop variable, or a flag computed from it) and call each function by its name under a test in "
                       "the stage (`if ki == 0: _relu(y, c)` / `else: _neg(y, c)`)"},
    phase="analysis",
    seed="each ctx field is initialised with a value of the type it carries, never a guessed one",
    doc=DOC,
    raised_by=("pto_transpile/sync/ctxring.py",),
)
