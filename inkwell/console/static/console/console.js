// Inkwell console: small progressive enhancements. Every page works without this file.
(function () {
  "use strict";

  function updateSelection(form) {
    // A selection the server keeps across pages and filters (the keywords library) counts there:
    // the page's ticks go to it, and its answer is the count.
    if (form.hasAttribute("data-selection-kept")) {
      form.dispatchEvent(new CustomEvent("selectionchange"));
      return;
    }
    var boxes = form.querySelectorAll('input[type=checkbox]:not([data-check-all]):not(:disabled)');
    var checked = Array.prototype.filter.call(boxes, function (box) { return box.checked; }).length;
    var counter = form.querySelector("[data-selected-count]");
    if (counter) counter.textContent = checked ? checked + " selected" : "None selected";
  }

  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target.matches("[data-check-all]")) {
      var form = target.closest("form");
      form.querySelectorAll('input[type=checkbox]:not([data-check-all]):not(:disabled)').forEach(function (box) { box.checked = target.checked; });
    }
    var selection = target.closest("[data-selection]");
    if (selection) updateSelection(selection);
    // A filter form refreshes its results on every change but its search box's, which it follows
    // as the person types. An event of our own, since htmx's trigger filters need eval, which
    // the Content-Security-Policy forbids.
    var filters = target.closest("form.filters");
    if (filters && target.type !== "search") filters.dispatchEvent(new CustomEvent("filterchange"));
  });

  document.addEventListener("input", function (event) {
    var field = event.target;
    if (!field.dataset || !field.dataset.limit) return;
    var counter = document.querySelector('[data-count-for="' + field.id + '"]');
    if (counter) counter.textContent = field.value.length;
  });

  document.addEventListener("submit", function (event) {
    var button = event.submitter;
    if (button && button.dataset.confirm && !window.confirm(button.dataset.confirm)) event.preventDefault();
  });

  // The rich-text editor (django-prose-editor) replaces the body's textarea with an editable
  // region; it is named by the field's label, as the textarea was.
  function nameEditors() {
    document.querySelectorAll(".prose-wrap [contenteditable=true]:not([aria-labelledby])").forEach(function (region) {
      region.setAttribute("aria-labelledby", "body-label");
      region.setAttribute("aria-multiline", "true");
    });
  }
  document.querySelectorAll(".prose-wrap").forEach(function (wrap) {
    new MutationObserver(nameEditors).observe(wrap, { childList: true, subtree: true });
  });
  nameEditors();

  // A refused save's summary links to each field: following a link puts the caret in the field.
  document.addEventListener("click", function (event) {
    var link = event.target.closest(".error-summary a[href^='#']");
    if (!link) return;
    var target = document.getElementById(link.getAttribute("href").slice(1));
    if (!target) return;
    event.preventDefault();
    var field = target.matches("input, select, textarea, [contenteditable]") ? target : document.getElementById(target.getAttribute("for") || "") || target;
    var region = field.closest(".field") && field.closest(".field").querySelector("[contenteditable=true]");
    (region || field).focus();
    (region || field).scrollIntoView({ block: "center" });
  });
  var summary = document.querySelector(".error-summary");
  if (summary) summary.focus();

  // A job started or ended (the "jobchange" its fragment raises, HX-Trigger): every fragment that
  // shows a job's subject fetches itself again, from its own address or, empty, the page's.
  document.body.addEventListener("jobchange", function () {
    document.querySelectorAll("[data-refresh-on-job]").forEach(function (element) {
      var url = element.getAttribute("data-refresh-on-job") || window.location.pathname + window.location.search;
      window.htmx.ajax("GET", url, { target: element, swap: element.getAttribute("data-refresh-swap") || "innerHTML" });
    });
  });

  document.documentElement.classList.add("js");
})();
