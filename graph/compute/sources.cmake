# The Compute language: lexer, parser, analysis, evaluator (paths relative to graph/).
