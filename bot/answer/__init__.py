"""Writing answers: the extractive composer or a language model, the fallback between them, and the
citation check every answer passes. It reads the store only through search results.
"""
