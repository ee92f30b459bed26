"""Counting plans: what a counting question's words ask of the records, and how it is counted."""
