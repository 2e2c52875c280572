#version 330 core
// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// One vertex per map point. The point moves from a_from (its place in the previous map)
// to a_to (the new map) as u_t goes 0 -> 1, so new layouts animate on the GPU with no
// per-frame work on the CPU. Colour and size come per point (gui/views/map/MapCanvas).

layout(location = 0) in vec2 a_from;
layout(location = 1) in vec2 a_to;
layout(location = 2) in vec4 a_color; // RGB of the point (from 8-bit, normalised)
layout(location = 3) in float a_size; // factor on u_pointSize (1 = default)

uniform vec2 u_center;      // map coordinates at the widget centre
uniform vec2 u_scale;       // NDC units per map unit (x, y)
uniform float u_t;          // animation progress, eased, 0..1
uniform float u_pointSize;  // diameter in framebuffer pixels
uniform int u_highlight;    // vertex drawn larger (the hovered point), -1 = none
uniform int u_selected;     // 1 while drawing the selected points (on top, larger)

out vec3 v_color;
out float v_size;
flat out int v_selected;

void main()
{
    vec2 p = mix(a_from, a_to, u_t);
    gl_Position = vec4((p - u_center) * u_scale, 0.0, 1.0);
    v_color = a_color.rgb;
    float size = u_pointSize * max(a_size, 0.05);
    v_size = gl_VertexID == u_highlight ? max(size * 2.0, u_pointSize * 1.5) : size;
    if (u_selected != 0)
        v_size = max(v_size, size * 1.6 + 2.0);
    v_selected = u_selected;
    gl_PointSize = v_size;
}
