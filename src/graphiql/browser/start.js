// Hubgraph GraphiQL page script (runs in the browser; loaded before the GraphiQL bundle, which it configures).
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("graphiql-config").textContent);

  // Monaco starts its web workers from these same-origin files instead of a CDN.
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_moduleId, label) {
      return config.workers[label] || config.workers.editorWorkerService;
    },
  };

  // Open the schema docs on a first visit; GraphiQL keeps the user's later choice under this key.
  try {
    if (localStorage.getItem("graphiql:visiblePlugin") === null) localStorage.setItem("graphiql:visiblePlugin", "Documentation Explorer");
  } catch (_) {
    // Storage may be disabled; the docs button still works.
  }

  // A signed-in cookie session must echo its CSRF token on POST /graphql; GET /api/session returns it
  // (401 when there is no session: then requests go out without it, e.g. with a bearer token in Headers).
  var session = fetch("/api/session", { credentials: "same-origin", headers: { accept: "application/json" } })
    .then(function (response) {
      return response.ok ? response.json() : null;
    })
    .catch(function () {
      return null;
    });

  window.addEventListener("DOMContentLoaded", function () {
    session.then(function (current) {
      var options = Object.assign({}, config.graphiql);
      // The query being edited lives in the page's URL (?query=), so a reload or a shared link keeps it;
      // yoga's component would let the example win over it.
      if (new URLSearchParams(location.search).has("query")) delete options.query;
      if (current && current.csrfToken) {
        options.additionalHeaders = Object.assign({}, options.additionalHeaders, { "X-CSRF-Token": current.csrfToken });
      }
      YogaGraphiQL.renderYogaGraphiQL(document.getElementById("graphiql"), options);
    });
  });
})();
