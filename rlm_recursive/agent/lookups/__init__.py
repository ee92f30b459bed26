"""Look-ups the runtime does without a model: hops through values, bridges, records and legends."""
