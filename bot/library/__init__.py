"""Literature triage: every paper about a topic and its themes, reading-list operations, naming papers
by id or label, and export for reference managers. It never writes an answer.
"""
