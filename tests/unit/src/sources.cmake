# Unit tests of libatoll (paths relative to tests/).
include(unit/src/reference/sources.cmake)
