"""The browser: one Chromium per server, reached only through netglean's policy proxy
(netglean.browser.proxy), lending isolated contexts to calls (netglean.browser.pool). Only this
package imports Playwright.
"""
