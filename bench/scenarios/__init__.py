from . import discord, latency, recovery, sessions, throughput

# Order matters only for reading the table.
SCENARIOS = [
    ("throughput", throughput),
    ("latency", latency),
    ("sessions", sessions),
    ("recovery", recovery),
    ("discord", discord),
]
