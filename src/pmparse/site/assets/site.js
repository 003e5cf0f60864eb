// pmparse site: the search box of the pages that list cards. No network, no dependency: it reads
// window.PMPARSE_SEARCH (search-index.js: card id -> the card's distinct lower-case words) and
// shows the rows whose card has every word of the query as the start of one of its words.
// It only sets hidden flags and textContent, never HTML.
(function () {
  "use strict";
  var WORD = /[\p{L}\p{N}\p{M}_]+/gu;

  function cases(n) { return n === 1 ? "1 case" : n + " cases"; }

  function words(query) { return (query.toLowerCase().match(WORD) || []); }

  function matches(index, id, terms) {
    var text = " " + (index[id] || "");
    for (var i = 0; i < terms.length; i++) {
      if (text.indexOf(" " + terms[i]) < 0) { return false; }
    }
    return true;
  }

  function apply(box, index) {
    var terms = words(box.value);
    var shown = {};
    var all = {};
    var sections = document.querySelectorAll("section.group");
    for (var s = 0; s < sections.length; s++) {
      var rows = sections[s].querySelectorAll("tr[data-id]");
      var visible = 0;
      for (var r = 0; r < rows.length; r++) {
        var id = rows[r].getAttribute("data-id");
        var hit = terms.length === 0 || matches(index, id, terms);
        rows[r].hidden = !hit;
        all[id] = true;
        if (hit) { visible += 1; shown[id] = true; }
      }
      var count = sections[s].querySelector(".count");
      if (count) {
        var total = parseInt(count.getAttribute("data-total"), 10);
        count.textContent = terms.length === 0 ? cases(total) : visible + " of " + cases(total);
      }
      sections[s].hidden = terms.length > 0 && visible === 0;
    }
    var out = document.getElementById("matches");
    if (out) {
      var n = Object.keys(shown).length;
      var m = Object.keys(all).length;
      out.textContent = terms.length === 0 ? cases(m) : (n === 1 ? "1 case matches" : n + " cases match");
    }
  }

  function start() {
    var box = document.getElementById("search");
    if (!box) { return; }
    var index = window.PMPARSE_SEARCH || {};
    var hash = window.location.hash;
    if (hash.indexOf("#q=") === 0) {
      try { box.value = decodeURIComponent(hash.slice(3)); } catch (e) { box.value = ""; }
    }
    box.addEventListener("input", function () { apply(box, index); });
    apply(box, index);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
