// The editor keeps a person's work (issue #29): it asks before leaving with unsaved changes,
// saves on Ctrl+S (Cmd+S), and autosaves what is typed a few seconds after the typing stops
// (an autosave revision on the server; the article itself changes only on Save). A strict
// Content-Security-Policy applies: this file, no inline script, no eval.
(function () {
  "use strict";
  var form = document.querySelector("form[data-editor]");
  if (!form) return;
  var AUTOSAVE_AFTER_MS = 3000;
  var status = form.querySelector("[data-autosave-status]");
  // A page shown again after a refused save, a conflict or a restore holds work not saved yet.
  var dirty = form.hasAttribute("data-unsaved");
  var leaving = false;
  var timer = null;
  var lastSent = null;

  function say(text) { if (status) status.textContent = text; }
  function fields() {
    var data = new FormData(form);
    data.delete("version");
    return data;
  }
  function snapshot() { return new URLSearchParams(fields()).toString(); }
  var saved = dirty ? null : snapshot();

  function autosave() {
    timer = null;
    var now = snapshot();
    if (now === saved || now === lastSent) return;
    var data = fields();
    say("Autosaving…");
    fetch(form.dataset.autosaveUrl, { method: "POST", body: data, credentials: "same-origin", headers: { "X-CSRFToken": data.get("csrfmiddlewaretoken") } })
      .then(function (response) {
        if (response.status === 204) {
          lastSent = now;
          say("Autosaved at " + new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }) + ". Not saved yet: press Save (Ctrl+S) to keep it in the article.");
          return;
        }
        say("Not autosaved (the server answered " + response.status + "). Your text is still here; Save says what to correct.");
      })
      .catch(function () { say("Not autosaved: the server could not be reached. Your text is still here."); });
  }

  function changed() {
    dirty = snapshot() !== saved;
    if (timer) clearTimeout(timer);
    if (dirty) timer = setTimeout(autosave, AUTOSAVE_AFTER_MS);
  }
  // The rich-text body reports its changes as input events of its (hidden) textarea.
  form.addEventListener("input", changed);
  form.addEventListener("change", changed);

  form.addEventListener("submit", function () { leaving = true; });
  // Leaving with unsaved changes, by a link of the console, another address or closing the tab:
  // the browser asks first.
  window.addEventListener("beforeunload", function (event) {
    if (!dirty || leaving) return;
    event.preventDefault();
    event.returnValue = "";
  });
  // "Take theirs" after a conflict leaves on purpose: the person's version is autosaved already.
  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-discard]")) leaving = true;
    var take = event.target.closest("[data-take-theirs]");
    if (take) {
      // A plain field takes the other version whole; passages of the body are copied by hand.
      var field = form.elements.namedItem(take.dataset.takeTheirs);
      if (field) {
        field.value = take.dataset.value;
        field.dispatchEvent(new Event("input", { bubbles: true }));
        take.textContent = "Theirs is in your version now";
      }
    }
  });

  document.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === "s") {
      event.preventDefault();
      leaving = true;
      form.requestSubmit();
    }
  });
})();
