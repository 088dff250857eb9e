# The Pluto-style scheduler on PPL (paths relative to polyhedral/).
target_sources(atoll_poly PRIVATE
  schedule/farkas.cpp
  schedule/pluto_core.cpp
  schedule/schedule_pluto.cpp
)
