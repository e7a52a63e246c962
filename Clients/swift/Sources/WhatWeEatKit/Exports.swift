@_exported import WhatWeEatAPI
