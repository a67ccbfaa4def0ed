// The usage chart of the Credits and plan screen: credits per day, stacked by operation, drawn by
// Chart.js (vendor/chartjs, served with the app). Without JavaScript the table under it has the numbers.
(function () {
  "use strict";
  var canvas = document.getElementById("usage-chart");
  var source = document.getElementById("usage-data");
  if (!canvas || !source || !window.Chart) return;
  var data = JSON.parse(source.textContent);
  var styles = getComputedStyle(document.documentElement);
  var text = styles.getPropertyValue("--muted").trim();
  var grid = styles.getPropertyValue("--border").trim();
  // Distinguishable in both colour schemes and for the common colour-vision deficiencies (Okabe-Ito).
  var palette = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999"];
  new window.Chart(canvas, {
    type: "bar",
    data: {
      labels: data.days,
      datasets: data.series.map(function (entry, index) {
        return { label: entry.label, data: entry.credits, backgroundColor: palette[index % palette.length], borderWidth: 0 };
      })
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      interaction: { mode: "index", intersect: false },
      scales: {
        x: { stacked: true, ticks: { color: text, maxRotation: 0, autoSkipPadding: 12 }, grid: { display: false } },
        y: { stacked: true, beginAtZero: true, ticks: { color: text, precision: 0 }, grid: { color: grid }, title: { display: true, text: "Credits", color: text } }
      },
      plugins: { legend: { position: "bottom", labels: { color: text } } }
    }
  });
  canvas.dataset.drawn = "true";
})();
