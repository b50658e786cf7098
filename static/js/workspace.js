// The answers workspace from the keyboard, and the page selection (static: the CSP refuses inline script).
//   j / ArrowDown, k / ArrowUp  next / previous question     e / Enter  edit
//   a  approve        r  re-draft       x  select           s  assign (the assignment page, for owners)
// A row stays focused across the htmx swap that replaces it, so "a" then "j" walks a page.
(function () {
  "use strict";
  var focusedRowId = null;

  function rows() { return Array.prototype.slice.call(document.querySelectorAll("#answers tr.ws-row")); }
  function currentRow() { var el = document.activeElement; return el && el.closest ? el.closest("tr.ws-row") : null; }

  function focusRow(row) {
    if (!row) return;
    row.focus();
    focusedRowId = row.id;
  }

  function move(step) {
    var all = rows(), row = currentRow(), index = row ? all.indexOf(row) + step : 0;
    if (index >= 0 && index < all.length) focusRow(all[index]);
  }

  function press(row, selector) {
    var control = row && row.querySelector(selector);
    if (control) control.click();
  }

  function typing(target) {
    return target.isContentEditable || /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(target.tagName) && target.type !== "checkbox";
  }

  var keys = {
    j: function () { move(1); }, ArrowDown: function () { move(1); },
    k: function () { move(-1); }, ArrowUp: function () { move(-1); },
    e: function (row) { if (row) window.location.assign(row.dataset.editUrl); },
    Enter: function (row, event) { if (row && event.target === row) window.location.assign(row.dataset.editUrl); },
    a: function (row) { press(row, ".approve-button"); },
    r: function (row) { press(row, ".redraft-button"); },
    x: function (row) { press(row, ".row-select"); },
    s: function (row) { press(row, ".assign-control"); },
  };

  document.addEventListener("keydown", function (event) {
    if (!document.getElementById("answers") || event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    var action = keys[event.key];
    if (!action) return;
    var row = currentRow();
    if (row) focusedRowId = row.id;
    action(row, event);
    if (event.key !== "Enter" || row) event.preventDefault();
  });

  // The swapped-in row (or workspace) takes the focus back where it was.
  document.body.addEventListener("htmx:afterSettle", function () {
    var row = focusedRowId && document.getElementById(focusedRowId);
    if (row && document.activeElement !== row && !currentRow()) row.focus();
    updateSelection();
  });

  function updateSelection() {
    var boxes = document.querySelectorAll("#answers .row-select"), selected = 0;
    boxes.forEach(function (box) { if (box.checked) selected += 1; });
    var count = document.getElementById("selected-count");
    if (count) count.textContent = selected ? selected + " selected" : "none selected";
    var all = document.getElementById("select-page");
    if (all) all.checked = boxes.length > 0 && selected === boxes.length;
  }

  document.addEventListener("change", function (event) {
    if (event.target.id === "select-page") {
      document.querySelectorAll("#answers .row-select").forEach(function (box) { box.checked = event.target.checked; });
    }
    if (event.target.id === "select-page" || event.target.classList.contains("row-select")) updateSelection();
  });
})();
