# SCoP, dependences, schedulers, transformations, AST build (paths relative to polyhedral/).
