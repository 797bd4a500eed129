"""Finding papers: hybrid retrieval over the store's corpus, follow-up questions resolved against the
last answer, and "more like this". It never writes an answer (bot.answer does).
"""
