# Polly's JSCoP scheduled by Atoll (paths relative to polyhedral/).
target_sources(atoll_poly PRIVATE
  jscop/jscop_scop.cpp
  jscop/schedule_jscop.cpp
)
