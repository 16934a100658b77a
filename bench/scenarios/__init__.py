from . import discord, failover, federation, latency, messengers, questions, recovery, scale, sessions, startup, throughput, web

# Order matters only for reading the table.
SCENARIOS = [
    ("throughput", throughput),
    ("latency", latency),
    ("sessions", sessions),
    ("recovery", recovery),
    ("discord", discord),
    ("questions", questions),
    ("messengers", messengers),
    ("web", web),
    ("federation", federation),
    ("failover", failover),
    ("startup", startup),
]

# Run only when named (`--only`): `make bench-scale` runs them, `make bench` does not.
NAMED_ONLY = [
    ("scale", scale),
]
