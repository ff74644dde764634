// As-you-type validation for the "try a message" form: the message goes
// to the catalogue API's validation route, and the verdict is written in
// with textContent only, so that nothing of a message can become markup.
// Without this script the form still works, posting to the page.
"use strict";
(function () {
	var form = document.querySelector("form[data-validate]");
	if (!form) return;
	form.setAttribute("data-judging", "as-you-type");
	var route = form.getAttribute("data-validate");
	var area = form.querySelector("textarea");
	var out = document.getElementById("verdict");
	var timer = null, seq = 0;

	function el(tag, cls, text) {
		var e = document.createElement(tag);
		if (cls) e.className = cls;
		if (text !== undefined) e.textContent = text;
		return e;
	}
	function clearRows() {
		document.querySelectorAll("tr.violated").forEach(function (tr) {
			tr.classList.remove("violated");
			tr.querySelectorAll("ul.violations").forEach(function (u) { u.remove(); });
		});
	}
	function rowOf(path) {
		var best = null;
		document.querySelectorAll("#members tbody tr").forEach(function (tr) {
			var p = tr.getAttribute("data-member");
			var ps = path.split("/"), qs = p.split("/");
			if (ps.length < qs.length) return;
			for (var i = 0; i < qs.length; i++) {
				if (qs[i] !== ps[i] && !(qs[i] === "*" && ps[i] !== "")) return;
			}
			if (!best || p.length > best.getAttribute("data-member").length) best = tr;
		});
		return best;
	}
	function violationItem(v, withPath) {
		var li = el("li");
		if (withPath) {
			li.appendChild(el("code", null, v.path || "(root)"));
			li.appendChild(document.createTextNode(" "));
		}
		li.appendChild(el("strong", null, v.rule));
		li.appendChild(document.createTextNode(": " + v.message));
		if (v.value) {
			li.appendChild(document.createTextNode(" (got "));
			li.appendChild(el("code", null, v.value));
			li.appendChild(document.createTextNode(")"));
		}
		return li;
	}
	function show(status, body) {
		clearRows();
		out.replaceChildren();
		if (status === 200 && body.valid) {
			out.appendChild(el("p", "valid", "Valid: the message conforms to this version."));
			return;
		}
		if (status !== 422 || !body.violations) {
			out.appendChild(el("p", "invalid", body.error || "The message could not be judged."));
			return;
		}
		var n = body.violations.length;
		var text = "Invalid: " + n + " violation" + (n === 1 ? "" : "s") + (body.omitted ? ", and " + body.omitted + " more not listed" : "") + ".";
		out.appendChild(el("p", "invalid", text));
		var list = el("ul", "violations");
		body.violations.forEach(function (v) {
			list.appendChild(violationItem(v, true));
			var tr = rowOf(v.path);
			if (tr) {
				tr.classList.add("violated");
				var cell = tr.lastElementChild;
				var ul = cell.querySelector("ul.violations");
				if (!ul) { ul = el("ul", "violations"); cell.appendChild(ul); }
				ul.appendChild(violationItem(v, false));
			}
		});
		out.appendChild(list);
	}
	function judge() {
		var mine = ++seq;
		if (area.value.trim() === "") { clearRows(); out.replaceChildren(); return; }
		fetch(route, { method: "POST", headers: { "Content-Type": "application/json" }, body: area.value })
			.then(function (r) { return r.json().then(function (b) { return [r.status, b]; }); })
			.then(function (sb) { if (mine === seq) show(sb[0], sb[1]); })
			.catch(function () { /* the form still posts */ });
	}
	area.addEventListener("input", function () {
		clearTimeout(timer);
		timer = setTimeout(judge, 300);
	});
})();
