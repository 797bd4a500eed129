"""The offline job: read abstract files, normalise, deduplicate, label, chunk, embed, write."""
