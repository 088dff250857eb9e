# Unit tests of the CPU backend (target atoll_tests; paths relative to tests/).
