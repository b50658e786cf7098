"""The small shared job toolkit: an abstract job table and the task runner.

Domain apps subclass `BaseJob` for each kind of long work and run the work
with `run_job()`, which gives every task the Required Task Interface (entry
guard, authoritative task id, time-limit handling, result dict) for free.
"""
