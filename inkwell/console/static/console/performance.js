// The search performance charts (the Performance screen and the editor's panel): clicks and
// impressions (and, for an article, its average position) from the page's json_script data, drawn by
// Chart.js (vendor/chartjs). Without JavaScript the table under each chart has the numbers.
(function () {
  "use strict";
  if (!window.Chart) return;
  var styles = getComputedStyle(document.documentElement);
  var text = styles.getPropertyValue("--muted").trim();
  var grid = styles.getPropertyValue("--border").trim();
  // Okabe-Ito: distinguishable in both colour schemes and for the common colour-vision deficiencies.
  var clicks = "#0072B2", impressions = "#E69F00", position = "#009E73";
  document.querySelectorAll("canvas[data-source]").forEach(function (canvas) {
    var source = document.getElementById(canvas.dataset.source);
    if (!source) return;
    var data = JSON.parse(source.textContent);
    var datasets = [
      { label: "Clicks", data: data.clicks, borderColor: clicks, backgroundColor: clicks, yAxisID: "y", tension: 0.2 },
      { label: "Impressions", data: data.impressions, borderColor: impressions, backgroundColor: impressions, yAxisID: "y1", borderDash: [6, 4], tension: 0.2 }
    ];
    var scales = {
      x: { ticks: { color: text, maxRotation: 0, autoSkipPadding: 12 }, grid: { display: false } },
      y: { beginAtZero: true, position: "left", ticks: { color: text, precision: 0 }, grid: { color: grid }, title: { display: true, text: "Clicks", color: text } },
      y1: { beginAtZero: true, position: "right", ticks: { color: text, precision: 0 }, grid: { display: false }, title: { display: true, text: "Impressions", color: text } }
    };
    if (data.position) {
      datasets.push({ label: "Position", data: data.position, borderColor: position, backgroundColor: position, yAxisID: "y2", borderDash: [2, 3], tension: 0.2 });
      scales.y2 = { reverse: true, position: "right", display: false };
    }
    new window.Chart(canvas, {
      type: "line",
      data: { labels: data.labels, datasets: datasets },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: "index", intersect: false },
        elements: { point: { radius: data.labels.length > 40 ? 0 : 3 } },
        scales: scales,
        plugins: { legend: { position: "bottom", labels: { color: text } } }
      }
    });
    canvas.dataset.drawn = "true";
  });
})();
