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

  // A cookie session must echo its CSRF token on POST /graphql. GET /api/session returns it (401 without a
  // session: then requests go out without it, e.g. with a bearer token from the Headers tab). GraphiQL
  // sends through window.fetch, so requests to the endpoint get the token here; a 403 means the session
  // changed since the token was read (signed in or again elsewhere), so the token is read again and the
  // request sent once more.
  var endpoint = new URL(config.graphiql.endpoint || location.pathname, location.href);
  var browserFetch = window.fetch.bind(window);
  var csrfToken = null;
  function readCsrfToken() {
    return browserFetch("/api/session", { credentials: "same-origin", headers: { accept: "application/json" } })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .catch(function () {
        return null;
      })
      .then(function (session) {
        csrfToken = (session && session.csrfToken) || null;
        return csrfToken;
      });
  }
  var firstRead = readCsrfToken();

  window.fetch = function (input, init) {
    var url = new URL(input instanceof Request ? input.url : String(input), location.href);
    if (url.origin !== endpoint.origin || url.pathname !== endpoint.pathname) return browserFetch(input, init);
    function send(token) {
      var headers = new Headers((init && init.headers) || (input instanceof Request ? input.headers : undefined));
      if (token) headers.set("X-CSRF-Token", token);
      return browserFetch(input, Object.assign({}, init, { headers: headers }));
    }
    return firstRead.then(function () {
      var sentWith = csrfToken;
      return send(sentWith).then(function (response) {
        // A Request's body can be read once only; GraphiQL sends (url, init) with a string body.
        if (response.status !== 403 || input instanceof Request) return response;
        return readCsrfToken().then(function (token) {
          return token && token !== sentWith ? send(token) : response;
        });
      });
    });
  };

  window.addEventListener("DOMContentLoaded", function () {
    var options = Object.assign({}, config.graphiql);
    // The query being edited lives in the page's URL (?query=), so a reload or a shared link keeps it;
    // yoga's component would let the example win over it.
    if (new URLSearchParams(location.search).has("query")) delete options.query;
    YogaGraphiQL.renderYogaGraphiQL(document.getElementById("graphiql"), options);
  });
})();
