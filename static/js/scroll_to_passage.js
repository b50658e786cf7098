// The passage page: bring the highlighted passage into view (an inline script would break the CSP).
document.getElementById("passage")?.scrollIntoView({block: "center"});
