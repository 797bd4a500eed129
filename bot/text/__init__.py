"""Text in, text out: sentences, normalisation, chunking, index terms, acronyms, token counts and the
citation format. No store, no model, no search.
"""
