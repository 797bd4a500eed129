"""Measuring retrieval and answers: BEIR and question-set evaluations beside BM25, dense and RRF
baselines. It searches stores that are already ingested and prints nothing.
"""
