// Client-side search over the tools table: every word typed must appear in a tool's name, title, description or
// argument names (each row's data-search). No server, no request: the docs work from plain files.
(function () {
  var input = document.getElementById("search");
  var count = document.getElementById("search-count");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#tool-table tbody tr"));
  function filter() {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (row) {
      var text = row.getAttribute("data-search") || "";
      var match = words.every(function (word) { return text.indexOf(word) !== -1; });
      row.hidden = !match;
      if (match) { shown += 1; }
    });
    count.textContent = words.length ? shown + " of " + rows.length + " tools" : "";
  }
  input.addEventListener("input", filter);
  filter();
})();
