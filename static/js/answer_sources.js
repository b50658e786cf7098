// The answer editor: "Insert" puts a passage's sentences or an answer-library entry at the cursor of the final
// answer, followed by its citation marker [n], and adds a hidden "cite" field (n:kind:id) the save records.
(function () {
  "use strict";
  var CITATION = /\s*\[\d{1,3}\]/g;

  function insertAtCursor(textarea, text) {
    var start = textarea.selectionStart, end = textarea.selectionEnd, value = textarea.value;
    var before = value.slice(0, start), after = value.slice(end);
    var glue = before && !/\s$/.test(before) ? " " : "";
    textarea.value = before + glue + text + after;
    var caret = (before + glue + text).length;
    textarea.setSelectionRange(caret, caret);
    textarea.focus();
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(".insert-source");
    if (!button) return;
    var sources = document.getElementById("sources"), form = document.getElementById("answer-form");
    var textarea = form && form.querySelector("textarea[name=final_text]");
    if (!sources || !textarea) return;
    var n = parseInt(sources.dataset.nextN, 10) || 1;
    // An entry's own markers point at its sources, not at this answer's: the entry as a whole is cited.
    insertAtCursor(textarea, button.dataset.text.replace(CITATION, "").trim() + " [" + n + "]");
    var cite = document.createElement("input");
    cite.type = "hidden";
    cite.name = "cite";
    cite.value = n + ":" + button.dataset.kind + ":" + button.dataset.id;
    form.appendChild(cite);
    sources.dataset.nextN = String(n + 1);
    button.textContent = "Inserted as [" + n + "]: save to keep it";
  });
})();
