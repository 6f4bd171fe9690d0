// Package browser replays gardener tests in headless Chromium through chromedp. It implements
// gardener.Runner: one Chromium per process, started on first use and reused like a warm Lambda
// container. Each replay runs in the tab of a browser context (an incognito-style profile)
// that no other replay uses meanwhile, and that tab and context are cleared of what earlier
// replays left in them (see lane), so replays run concurrently in one browser without sharing
// a page, history, cookies, cache or storage. A single-process Chromium (Options.SingleProcess) has one context only; replays there
// take turns in it.
//
// Element work happens in an in-page runtime (js/runtime.js) installed in every document before
// the page's scripts run: locator resolution, actionability, accessible names, fingerprints and
// the DOM snapshot. Input goes through the DevTools Input domain, so clicks and keys reach the
// page as a person's would, through whatever covers the element.
package browser
