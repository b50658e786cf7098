// The answer editor: "Insert" puts a passage's sentences or an answer-library entry at the cursor of the final
// answer, followed by its citation marker [n], and adds a hidden "cite" field (n:kind:id) the save records.
// A passage the answer already lists (data-n) keeps its number; any other source takes the next free one.
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
    var next = parseInt(sources.dataset.nextN, 10) || 1;
    var n = parseInt(button.dataset.n, 10) || next;
    // An entry's own markers point at its sources, not at this answer's: the entry as a whole is cited.
    var text = button.dataset.text.replace(CITATION, "").trim();
    // the marker goes inside the sentence, before its closing stop, as the drafts place theirs: "… every year [2]."
    var stop = /[.!?]$/.test(text) ? text.slice(-1) : "";
    insertAtCursor(textarea, text.slice(0, text.length - stop.length) + " [" + n + "]" + stop);
    var cite = document.createElement("input");
    cite.type = "hidden";
    cite.name = "cite";
    cite.value = n + ":" + button.dataset.kind + ":" + button.dataset.id;
    form.appendChild(cite);
    if (n === next) sources.dataset.nextN = String(next + 1);
    button.textContent = "Inserted as [" + n + "]: save to keep it";
  });
})();
