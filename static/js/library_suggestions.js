// The answer editor's library suggestions from the keyboard: 1, 2, 3 use the first, second, third
// (outside a text field, so typing an answer never picks one). Static: the CSP refuses inline script.
(function () {
  "use strict";

  function typing(target) {
    return target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    var suggestion = document.querySelector('#library-suggestions .suggestion[data-key="' + event.key + '"]');
    var use = suggestion && suggestion.querySelector(".suggestion-use");
    if (!use) return;
    event.preventDefault();
    use.click();
  });
})();
