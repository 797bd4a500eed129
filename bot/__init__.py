"""paperbot: retrieval-augmented Q&A over scientific abstracts, every sentence cited."""
