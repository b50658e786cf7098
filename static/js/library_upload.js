/* Library upload: one request per file (so one bad file never stops the others),
   a progress bar per file, then the document's processing status, polled every
   second until it is ready or failed (with the reason and a Retry button).
   No framework; all text goes in with textContent. */
(function () {
  "use strict";
  var form = document.getElementById("upload-form");
  if (!form) return;
  var zone = document.getElementById("drop-zone");
  var input = document.getElementById("file-input");
  var list = document.getElementById("upload-list");
  var csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
  var MAX_PARALLEL = 3, POLL_MS = 1000;
  var waiting = [], running = 0;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function libraryChanged() { document.body.dispatchEvent(new CustomEvent("library-changed")); }

  function addRow(file) {
    var row = el("li", "upload-item");
    row.dataset.filename = file.name;
    var bar = el("div", "bar"), fill = el("div", "bar-fill");
    fill.style.width = "0%";
    bar.appendChild(fill);
    var state = el("span", "state muted", "Waiting…");
    row.appendChild(el("span", "name", file.name));
    row.appendChild(bar);
    row.appendChild(state);
    list.appendChild(row);
    return { row: row, fill: fill, state: state };
  }

  function setState(item, status, text, cls) {
    item.row.dataset.status = status;
    item.state.className = "state " + (cls || "");
    item.state.textContent = text;
  }

  function enqueue(files) {
    Array.prototype.forEach.call(files, function (file) { waiting.push({ file: file, item: addRow(file) }); });
    pump();
  }

  function pump() {
    while (running < MAX_PARALLEL && waiting.length) {
      running++;
      upload(waiting.shift());
    }
  }

  function upload(job) {
    var item = job.item, xhr = new XMLHttpRequest(), data = new FormData();
    data.append("files", job.file);
    xhr.open("POST", form.action);
    xhr.setRequestHeader("X-CSRFToken", csrf);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = function (e) {
      if (!e.lengthComputable) return;
      var pct = Math.round((e.loaded / e.total) * 100);
      item.fill.style.width = pct + "%";
      setState(item, "uploading", "Uploading " + pct + "%", "muted");
    };
    xhr.onload = function () { running--; pump(); uploaded(item, xhr); };
    xhr.onerror = function () { running--; pump(); setState(item, "error", "Upload failed: the server could not be reached.", "error"); };
    setState(item, "uploading", "Uploading…", "muted");
    xhr.send(data);
  }

  function uploaded(item, xhr) {
    var result;
    try { result = JSON.parse(xhr.responseText).results[0]; } catch (e) { result = null; }
    item.fill.style.width = "100%";
    if (!result) { setState(item, "error", "Upload failed (HTTP " + xhr.status + ").", "error"); return; }
    if (!result.ok) {
      item.fill.classList.add("bar-failed");
      setState(item, "refused", result.error, "error");
      return;
    }
    item.fill.classList.add("bar-completed");
    if (result.duplicate) item.row.dataset.duplicate = "true";
    showDocument(item, result.document, result.duplicate);
    libraryChanged();
  }

  function showDocument(item, doc, duplicate) {
    item.state.textContent = "";
    item.row.dataset.documentId = doc.id;
    item.row.dataset.status = doc.status;
    var link = el("a", "", doc.title);
    link.href = doc.url;
    var badge = el("span", "badge badge-" + doc.status, doc.status_display);
    item.state.className = "state";
    item.state.appendChild(badge);
    item.state.appendChild(document.createTextNode(" "));
    item.state.appendChild(link);
    if (duplicate) item.state.appendChild(el("span", "muted", " — already in the library"));
    if (doc.is_ready) item.state.appendChild(el("span", "muted", " · " + doc.chunk_count + (doc.chunk_count === 1 ? " passage" : " passages")));
    if (doc.message) item.state.appendChild(el("span", "error", doc.message));
    if (doc.status === "failed" && doc.can_retry) {
      var retry = el("button", "", "Retry");
      retry.type = "button";
      retry.onclick = function () { retryDocument(item, doc); };
      item.state.appendChild(retry);
    }
    if (doc.is_processing) setTimeout(function () { poll(item, doc); }, POLL_MS);
  }

  function poll(item, doc) {
    fetch(doc.status_url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (fresh) {
        var changed = fresh.status !== doc.status;
        showDocument(item, fresh, item.row.dataset.duplicate === "true");
        if (changed) libraryChanged();
      })
      .catch(function () { setTimeout(function () { poll(item, doc); }, POLL_MS * 3); });
  }

  function retryDocument(item, doc) {
    fetch(doc.retry_url, { method: "POST", headers: { Accept: "application/json", "X-CSRFToken": csrf }, credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (fresh) { showDocument(item, fresh, false); libraryChanged(); });
  }

  input.addEventListener("change", function () { enqueue(input.files); input.value = ""; });
  ["dragenter", "dragover"].forEach(function (name) {
    zone.addEventListener(name, function (e) { e.preventDefault(); zone.classList.add("dragging"); });
  });
  ["dragleave", "drop"].forEach(function (name) {
    zone.addEventListener(name, function (e) { e.preventDefault(); zone.classList.remove("dragging"); });
  });
  zone.addEventListener("drop", function (e) { if (e.dataTransfer) enqueue(e.dataTransfer.files); });
})();
