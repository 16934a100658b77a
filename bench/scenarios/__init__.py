from . import discord, failover, federation, latency, questions, recovery, sessions, startup, throughput, web

# Order matters only for reading the table.
SCENARIOS = [
    ("throughput", throughput),
    ("latency", latency),
    ("sessions", sessions),
    ("recovery", recovery),
    ("discord", discord),
    ("questions", questions),
    ("web", web),
    ("federation", federation),
    ("failover", failover),
    ("startup", startup),
]
