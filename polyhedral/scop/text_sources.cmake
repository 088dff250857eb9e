# SCoPs given as isl strings plus Compute bodies (paths relative to polyhedral/).
target_sources(atoll_poly PRIVATE
  scop/scop_from_text.cpp
)
