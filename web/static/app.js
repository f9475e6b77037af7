// Progressive enhancement only: every page works without this file.
(function () {
  "use strict";
  // "/" focuses the search box, as on most search sites.
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    var typing = t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable);
    if (e.key === "/" && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
      var q = document.querySelector("input[name=q]");
      if (q) {
        e.preventDefault();
        q.focus();
        q.select();
      }
    }
    // On a document, n and p step through the highlighted matches.
    if ((e.key === "n" || e.key === "p") && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
      var marks = document.querySelectorAll("pre.text mark");
      if (!marks.length) return;
      var cur = document.querySelector("pre.text mark.current");
      var i = Array.prototype.indexOf.call(marks, cur);
      i = e.key === "n" ? (i + 1) % marks.length : (i <= 0 ? marks.length - 1 : i - 1);
      if (cur) cur.classList.remove("current");
      marks[i].classList.add("current");
      marks[i].scrollIntoView({ block: "center" });
    }
  });
})();
