-- How a run's answer was grounded (issue 20): {"grounded": true|false, "method": "checked" |
-- "reasked" | "extractive" | "computed" | "not_found" | "contexts", "failed": [check names]}.
-- Content-free (no values, no words), so every trace mode keeps it; NULL: grounding was off
-- or the run ended before it.
ALTER TABLE runs ADD COLUMN grounding TEXT;
