/* report_page: the page shell and helpers the report pages share (see report_page.h).
 *
 * The stylesheet keeps dark text on a light background and gives every chart
 * its own printed page; the script only reads data perfhunt embedded as JSON
 * and builds the hover box with textContent, never with markup from records.
 */
#include "export/report_page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export/flamegraph.h"
#include "export/report_chart.h"
#include "record/command.h"
#include "util/xalloc.h"

const char report_page_chart_css[] =
	"svg text{font-family:system-ui,'DejaVu Sans',Arial,sans-serif;font-size:12px;fill:#1a1a1a}"
	".ctitle{font-size:14px;font-weight:600}.ytick,.lane{text-anchor:end;fill:#333}"
	".xtick{text-anchor:middle;fill:#333}.grid{stroke:#e4e4e4}.axis{stroke:#555}"
	".series{fill:none;stroke-width:1.4;stroke-linejoin:round}.envelope{fill-opacity:.18;stroke:none}"
	"circle.peak{fill:#D55E00;stroke:#fff;stroke-width:1.5}"
	".peakline{stroke:#D55E00;stroke-dasharray:3 3}.peaklabel{font-weight:600;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}"
	".barlabel{font-size:11px}.cursor{stroke:#333}.dot{fill-opacity:.75}"
	".box{fill:#f2f2f2;stroke:#555}.median{stroke:#000;stroke-width:2}.whisker{stroke:#000}"
	".clamped{font-size:11px;fill:#B34700}";

static const char report_page_css[] =
	"body{font:14px/1.45 system-ui,'DejaVu Sans',Arial,sans-serif;color:#1a1a1a;background:#fff;"
	"max-width:1000px;margin:24px auto;padding:0 16px}"
	"h1{font-size:20px;margin:0 0 6px}h2{font-size:16px;margin:28px 0 8px;"
	"border-bottom:1px solid #ddd;padding-bottom:2px}"
	"code{font:13px/1.4 ui-monospace,'DejaVu Sans Mono',monospace;background:#f4f4f4;padding:1px 4px;"
	"word-break:break-all}"
	/* a command to copy wraps on a narrow window rather than running off it */
	"pre{white-space:pre-wrap;overflow-wrap:anywhere}"
	/* a number never breaks over lines; a table wider than the page scrolls in its own box */
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:6px 0;display:block;"
	"overflow-x:auto;max-width:100%}"
	"td,th{padding:3px 10px;text-align:right;border-bottom:1px solid #eee;vertical-align:top}td{white-space:nowrap}"
	"th{font-weight:600}.l,table.meta th,table.meta td{text-align:left}table.meta th{color:#444}"
	"td.l,table.meta td{white-space:normal;min-width:8em}"
	"svg.chart{width:100%;height:auto;display:block}figure{margin:14px 0}svg a{cursor:pointer}"
	".regressed{color:#B34700;font-weight:600}.improved{color:#00755A;font-weight:600}"
	".note{color:#444;font-size:13px}"
	/* nested phases, indented under the phase that holds them */
	"tr.depth1 td:first-child{padding-left:2em}tr.depth2 td:first-child{padding-left:3.5em}"
	"tr.depth3 td:first-child{padding-left:5em}"
	/* a phase's resources under its row, folded with its <details> (no script) */
	"table.metrics th{white-space:nowrap}table.metrics td,table.metrics th{padding:3px 8px}"
	"table.metrics td.l{min-width:0}summary{cursor:pointer}.nres{color:#555;font-size:12px;white-space:nowrap}"
	"tr.fam th{padding-top:10px}tr.res td:first-child{padding-left:2.2em}tbody.grp:has(details:not([open])) tr.res{display:none}"
	".pbar{height:7px;margin:2px 0;min-width:1px}.pbar.base{background:#999}.pbar.new{background:#D55E00}"
	"#tip{position:fixed;pointer-events:none;background:#fff;border:1px solid #888;padding:4px 8px;"
	"font-size:12px;display:none;box-shadow:0 1px 4px rgba(0,0,0,.2);z-index:2}"
	"@page{margin:12mm}"
	/* Printed, every chart keeps to one A4/Letter page: never split, never taller than a page. */
	"@media print{body{margin:0;max-width:none}figure{break-inside:avoid;page-break-inside:avoid}"
	"svg.chart{max-height:240mm}#tip{display:none}}";

/* Hover: nearest sample under the pointer, every series' value. */
static const char report_page_js[] =
	"(function(){\n"
	"var L=%d,W=%d,tip=document.getElementById('tip');\n"
	"function num(u,v){if(v===null||v===undefined)return '\\u2013';var a=Math.abs(v),i=0;\n"
	" if(u==='kb'){var k=['KiB','MiB','GiB','TiB'];while(a>=1024&&i<3){a/=1024;v/=1024;i++}"
	"return v.toFixed(i?2:0)+' '+k[i]}\n"
	" if(u==='rate'){var r=['','k','M','G'];while(a>=1000&&i<3){a/=1000;v/=1000;i++}"
	"return v.toFixed(i?1:0)+(i?' '+r[i]:'')+'/s'}\n"
	" if(u==='pct')return v.toFixed(1)+' %%';return String(v)}\n"
	"function tm(ms){if(ms<1000)return ms.toFixed(0)+' ms';if(ms<60000)return (ms/1000).toFixed(2)+' s';\n"
	" var s=Math.floor(ms/1000);if(ms<3600000)return Math.floor(s/60)+' min '+('0'+s%%60).slice(-2)+' s';\n"
	" return Math.floor(s/3600)+' h '+('0'+Math.floor(s/60)%%60).slice(-2)+' min'}\n"
	"document.querySelectorAll('svg.chart').forEach(function(svg){\n"
	" var dn=svg.nextElementSibling;if(!dn||!dn.classList.contains('hover-data'))return;\n"
	" var d=JSON.parse(dn.textContent),tmax=+svg.getAttribute('data-tmax')||1;\n"
	" var cur=svg.querySelector('.cursor'),hov=svg.querySelector('.hover');if(!hov||!d.t.length)return;\n"
	" hov.addEventListener('mousemove',function(ev){\n"
	"  var p=svg.createSVGPoint();p.x=ev.clientX;p.y=ev.clientY;\n"
	"  var q=p.matrixTransform(svg.getScreenCTM().inverse()),t=(q.x-L)/W*tmax,lo=0,hi=d.t.length-1;\n"
	"  while(hi-lo>1){var m=(lo+hi)>>1;if(d.t[m]<t)lo=m;else hi=m}\n"
	"  var i=Math.abs(d.t[lo]-t)<=Math.abs(d.t[hi]-t)?lo:hi,x=L+d.t[i]/tmax*W;\n"
	"  cur.setAttribute('x1',x);cur.setAttribute('x2',x);cur.setAttribute('visibility','visible');\n"
	"  tip.textContent='';var b=document.createElement('b');b.textContent=tm(d.t[i]);tip.appendChild(b);\n"
	"  d.s.forEach(function(s){var r=document.createElement('div'),sw=document.createElement('span');\n"
	"   sw.textContent='\\u25A0 ';sw.style.color=s.c;r.appendChild(sw);\n"
	"   r.appendChild(document.createTextNode(s.n+': '+num(d.u,s.v[i])));tip.appendChild(r)});\n"
	"  tip.style.display='block';tip.style.left=(ev.clientX+14)+'px';tip.style.top=(ev.clientY+10)+'px'});\n"
	" hov.addEventListener('mouseleave',function(){tip.style.display='none';"
	"cur.setAttribute('visibility','hidden')});\n"
	"});\n"
	"document.documentElement.setAttribute('data-ready','1');\n"
	"})();\n";

void report_page_begin(struct svg *s, const char *title)
{
	svg_raw(s, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		   "<meta name=\"generator\" content=\"perfhunt " PERFHUNT_VERSION "\">\n<title>");
	svg_text(s, title);
	/* The error hook comes first, so any script error is visible in the DOM. */
	svg_printf(s, "</title>\n<script>window.onerror=function(m){document.documentElement."
		   "setAttribute('data-error',String(m));};</script>\n<style>%s%s%s</style>\n</head>\n<body>\n",
		   report_page_css, report_page_chart_css, flamegraph_css);
}

void report_page_end(struct svg *s)
{
	svg_raw(s, "<div id=\"tip\"></div>\n<p class=\"note\">Written by perfhunt " PERFHUNT_VERSION
		   ". KB means KiB (1024 bytes).</p>\n<script>\n");
	svg_printf(s, report_page_js, REPORT_CHART_LEFT, REPORT_CHART_PLOT_W);
	svg_raw(s, "</script>\n</body>\n</html>\n");
}

double report_page_num(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *report_page_str(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	return v ? v : "";
}

char *report_page_command(const json_t *argv)
{
	char *line = command_text(argv);
	return line ? line : xstrdup("?");
}

void report_page_row(struct svg *s, const char *key, const char *value)
{
	svg_raw(s, "<tr><th>");
	svg_text(s, key);
	svg_raw(s, "</th><td>");
	svg_text(s, value);
	svg_raw(s, "</td></tr>\n");
}

void report_page_cell(struct svg *s, const char *text, int left)
{
	svg_raw(s, left ? "<td class=\"l\">" : "<td>");
	svg_text(s, text);
	svg_raw(s, "</td>");
}
