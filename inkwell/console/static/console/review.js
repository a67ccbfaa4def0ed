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
