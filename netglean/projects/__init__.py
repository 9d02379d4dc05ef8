"""Projects, the engine: saved jobs of three kinds (extract, crawl, feed) - their definitions
checked, their runs (each page's rows written to the project's datasets), a feed project's refresh.
"""
