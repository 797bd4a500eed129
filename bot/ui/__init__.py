"""The Gradio chat UI over plain callables: widgets (build, tabs), event wiring (events, tab_events),
and what the tabs show (chat, views), tested without a browser where it has no gradio.
"""
