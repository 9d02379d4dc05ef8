"""Agent readability: how well a page reads to an agent, scored from evidence gathered once
(netglean.scraping.scan).

The score is a pure function of the evidence document (``evidence``): the same evidence always gives
the same result, byte for byte, so a stored scan can be scored again, compared and explained.
"""
