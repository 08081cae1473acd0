//===- SvgPlot.h - a labelled scatter plot as SVG ---------------*- C++ -*-===//
//
// Enough SVG for the bench's "memory against compute time" figure: points
// with labels, two axes with ticks, a title. No dependencies.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_SVGPLOT_H
#define COTANGENT_BENCH_SVGPLOT_H

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace cotangent::bench {

struct PlotPoint {
  std::string label;
  double x, y;
};

/// Writes a scatter plot of `points` to `path`; false if the file cannot be written.
inline bool writeScatterSvg(const std::string &path, const std::string &title,
                            const std::string &xLabel, const std::string &yLabel,
                            const std::vector<PlotPoint> &points) {
  const double width = 760, height = 480, left = 80, right = 260, top = 50, bottom = 60;
  double xMin = 0, yMin = 0, xMax = 1, yMax = 1;
  for (const PlotPoint &p : points) {
    xMax = std::max(xMax, p.x);
    yMax = std::max(yMax, p.y);
  }
  xMax *= 1.1;
  yMax *= 1.1;
  auto sx = [&](double x) { return left + (x - xMin) / (xMax - xMin) * (width - left - right); };
  auto sy = [&](double y) { return height - bottom - (y - yMin) / (yMax - yMin) * (height - top - bottom); };
  auto escape = [](std::string s) {
    std::string out;
    for (char c : s)
      out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
    return out;
  };
  std::ofstream os(path);
  if (!os)
    return false;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
     << "<text x=\"" << width / 2 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">"
     << escape(title) << "</text>\n";
  // Axes and ticks (5 per axis).
  os << "<line x1=\"" << sx(xMin) << "\" y1=\"" << sy(yMin) << "\" x2=\"" << sx(xMax) << "\" y2=\""
     << sy(yMin) << "\" stroke=\"black\"/>\n"
     << "<line x1=\"" << sx(xMin) << "\" y1=\"" << sy(yMin) << "\" x2=\"" << sx(xMin) << "\" y2=\""
     << sy(yMax) << "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= 5; ++i) {
    double x = xMin + (xMax - xMin) * i / 5, y = yMin + (yMax - yMin) * i / 5;
    os << "<text x=\"" << sx(x) << "\" y=\"" << sy(yMin) + 18 << "\" text-anchor=\"middle\">"
       << std::round(x * 10) / 10 << "</text>\n"
       << "<text x=\"" << sx(xMin) - 8 << "\" y=\"" << sy(y) + 4 << "\" text-anchor=\"end\">"
       << std::round(y * 10) / 10 << "</text>\n";
  }
  os << "<text x=\"" << (sx(xMin) + sx(xMax)) / 2 << "\" y=\"" << height - 15
     << "\" text-anchor=\"middle\">" << escape(xLabel) << "</text>\n"
     << "<text transform=\"translate(20," << (sy(yMin) + sy(yMax)) / 2
     << ") rotate(-90)\" text-anchor=\"middle\">" << escape(yLabel) << "</text>\n";
  for (size_t i = 0; i < points.size(); ++i) {
    const PlotPoint &p = points[i];
    os << "<circle cx=\"" << sx(p.x) << "\" cy=\"" << sy(p.y) << "\" r=\"5\" fill=\"#1f77b4\"/>\n"
       << "<text x=\"" << sx(p.x) + 8 << "\" y=\"" << sy(p.y) + 4 + 13.0 * (i % 2)
       << "\">" << escape(p.label) << "</text>\n";
  }
  os << "</svg>\n";
  return static_cast<bool>(os);
}

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_SVGPLOT_H
