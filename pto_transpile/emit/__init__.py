"""Step 3, emit: the pipelined kernel as libcst nodes spliced around the user's own.

`rewrite` (the loop emitter and the kernel rewriter), `nodes` (builders of the generated
nodes), `style` (the generated code's quotes, indentation and parentheses).
"""
