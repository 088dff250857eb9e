# The Compute language: lexer, parser, analysis, evaluator (paths relative to graph/).
target_sources(atoll_graph PRIVATE
  compute/affine.cpp
  compute/analyze.cpp
  compute/compile_kernel.cpp
  compute/evaluate.cpp
  compute/lexer.cpp
  compute/parser.cpp
  compute/print.cpp
  compute/widen_accumulators.cpp
)
