# Performance transformations driven by the cost model (paths relative to polyhedral/).
target_sources(atoll_poly PRIVATE
)
