"""What both adapters need, and neither owns: configuration, rule selection,
suppression comments, the report -> diagnostic pipeline and module resolution.

Neutral ground: it imports the analysis layer, never the CLI or the server.
"""
