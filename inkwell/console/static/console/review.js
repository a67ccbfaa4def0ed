// Review together: a passage selected in the preview becomes the comment's anchor (its text and
// where it starts in the article's text; the server places the comment on the nearest
// occurrence). Without this file, comments are on the whole article.
(function () {
  "use strict";

  function articleOffset(article, range) {
    var before = document.createRange();
    before.selectNodeContents(article);
    before.setEnd(range.startContainer, range.startOffset);
    return before.toString().length;
  }

  function choose() {
    var article = document.querySelector("[data-article]");
    var form = document.querySelector("[data-comment-form]");
    var selection = window.getSelection();
    if (!article || !form || !selection || selection.rangeCount === 0 || selection.isCollapsed) return;
    var range = selection.getRangeAt(0);
    if (!article.contains(range.startContainer)) return;
    if (!article.contains(range.endContainer)) {
      // A triple click on the last paragraph selects up to the next block, outside the article.
      range = range.cloneRange();
      range.setEnd(article, article.childNodes.length);
    }
    var quote = range.toString().replace(/\s+/g, " ").trim();
    if (!quote) return;
    form.querySelector("[data-quote]").value = quote;
    form.querySelector("[data-start]").value = String(articleOffset(article, range));
    var shown = form.querySelector("[data-anchor-quote]");
    shown.textContent = "On: “" + (quote.length > 200 ? quote.slice(0, 199) + "…" : quote) + "”";
    shown.hidden = false;
    form.querySelector("[data-anchor-hint]").textContent = "Commenting on the selected passage. Select nothing and comment to comment on the whole article.";
  }

  document.addEventListener("mouseup", choose);
  document.addEventListener("keyup", function (event) { if (event.shiftKey) choose(); });
})();

// Mentions: typing "@" and a few letters in a comment offers the teammates who may be mentioned
// (the page lists them in #mention-suggestions); ArrowUp/ArrowDown move, Enter or Tab inserts the
// chosen one's handle, Escape closes. Without this file, @ and an e-mail address still work.
(function () {
  "use strict";

  var data = document.getElementById("mention-suggestions");
  if (!data) return;
  var people = JSON.parse(data.textContent);
  var counter = 0;

  function typedMention(field) {
    var before = field.value.slice(0, field.selectionStart);
    var match = /(^|[^\w.+-])@([\w.+-]*)$/.exec(before);
    return match ? { start: before.length - match[2].length - 1, text: match[2].toLowerCase() } : null;
  }

  function matching(text) {
    return people.filter(function (person) {
      var words = [person.insert, person.email].concat(person.name.toLowerCase().split(/\s+/));
      return words.some(function (word) { return word.toLowerCase().indexOf(text) === 0; });
    }).slice(0, 8);
  }

  function attach(field) {
    counter += 1;
    var list = document.createElement("ul");
    list.id = "mention-list-" + counter;
    list.className = "mention-list";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Teammates to mention");
    list.hidden = true;
    field.insertAdjacentElement("afterend", list);
    field.setAttribute("aria-autocomplete", "list");
    field.setAttribute("aria-controls", list.id);
    var options = [], active = -1, mention = null;

    function close() {
      list.hidden = true;
      list.textContent = "";
      options = [];
      active = -1;
      field.removeAttribute("aria-activedescendant");
    }

    function highlight(index) {
      options.forEach(function (option, at) { option.setAttribute("aria-selected", at === index ? "true" : "false"); });
      active = index;
      field.setAttribute("aria-activedescendant", options[index].id);
    }

    function choose(person) {
      var after = field.value.slice(field.selectionStart);
      var inserted = "@" + person.insert + " ";
      field.value = field.value.slice(0, mention.start) + inserted + after;
      var caret = mention.start + inserted.length;
      field.setSelectionRange(caret, caret);
      close();
      field.focus();
    }

    function update() {
      mention = typedMention(field);
      var found = mention ? matching(mention.text) : [];
      if (!found.length) { close(); return; }
      list.textContent = "";
      options = found.map(function (person, index) {
        var option = document.createElement("li");
        option.id = list.id + "-" + index;
        option.setAttribute("role", "option");
        option.textContent = person.name === person.email ? person.email : person.name + " (" + person.email + ")";
        option.addEventListener("mousedown", function (event) { event.preventDefault(); choose(person); });
        option.person = person;
        list.appendChild(option);
        return option;
      });
      list.hidden = false;
      highlight(0);
    }

    field.addEventListener("input", update);
    field.addEventListener("blur", close);
    field.addEventListener("keydown", function (event) {
      if (list.hidden) return;
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        highlight((active + (event.key === "ArrowDown" ? 1 : options.length - 1)) % options.length);
      } else if (event.key === "Enter" || event.key === "Tab") {
        event.preventDefault();
        choose(options[active].person);
      } else if (event.key === "Escape") {
        event.preventDefault();
        close();
      }
    });
  }

  document.querySelectorAll("[data-mention-input]").forEach(attach);
})();
