# Inline vectorizable math (exp, log, tanh, erf, sigmoid) for the LLVM lowering (paths relative to backends/).
target_sources(atoll_backends PRIVATE
  cpu/vector_math.cpp
)
