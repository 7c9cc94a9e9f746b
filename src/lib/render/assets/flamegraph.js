// ember's flame graph script: hover details.  (Zoom and search to come.)
var details;
function init(evt) {
	details = document.getElementById("details").firstChild;
	var frames = document.getElementById("frames");
	frames.addEventListener("mouseover", function (e) {
		var g = e.target.closest("#frames > *");
		if (g) details.nodeValue = fg.nametype + " " + g.firstChild.textContent;
	});
	frames.addEventListener("mouseout", function () { details.nodeValue = " "; });
}
