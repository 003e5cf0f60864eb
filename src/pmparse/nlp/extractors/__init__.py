"""Pure extractors over text that components call: dates, clock times and durations."""
