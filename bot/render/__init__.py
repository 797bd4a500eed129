"""Pure functions from the core's types to what people and scripts read: JSON, terminal text, the
chat's markdown and HTML. No I/O.
"""
