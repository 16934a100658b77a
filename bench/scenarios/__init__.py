from . import throughput

# Order matters only for reading the table.
SCENARIOS = [
    ("throughput", throughput),
]
